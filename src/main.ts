import { mount } from 'svelte';
import App from './App.svelte';
import './app/theme.css';

const target = document.getElementById('app');
if (!target) throw new Error('NeuroEval: #app element missing from index.html');

mount(App, { target });
